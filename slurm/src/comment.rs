//! The `mlsched:` job comment: how a user hands mlsched a job (`sbatch -H --comment
//! 'mlsched:<job JSON>'`), and how the bridge writes a cancel reason back into it.
//!
//! Written as `mlsched:<job JSON>` optionally followed by ` mlsched-cancel:<reason>` (added by
//! [`MlschedComment::with_cancel`] when the bridge rejects the job, so the job JSON survives for
//! a restarted bridge). A comment without the prefix is not mlsched's: `parse` returns `None`.
use crate::error::SlurmError;
use serde_json::{Map, Value};

/// The prefix of a comment mlsched owns.
pub const PREFIX: &str = "mlsched:";

/// What follows the job JSON when the bridge cancelled the job.
pub const CANCEL_MARK: &str = " mlsched-cancel:";

/// A parsed `mlsched:` comment.
#[derive(Clone, Debug, PartialEq)]
pub struct MlschedComment {
    /// The job object, with `id` set (the Slurm job id as a string when the user gave none).
    pub job: Map<String, Value>,
    /// The reason the bridge cancelled it, if it did.
    pub cancel_reason: Option<String>,
}

impl MlschedComment {
    /// Parses the comment of Slurm job `job_id`: `Ok(None)` without the prefix; an error naming
    /// the job id and the field (`comment` for the JSON itself, `id` for a bad id).
    pub fn parse(job_id: u64, comment: &str) -> Result<Option<Self>, SlurmError> {
        let Some(rest) = comment.strip_prefix(PREFIX) else {
            return Ok(None);
        };
        let err = |field: &str, message: String| SlurmError::Comment {
            job_id,
            field: field.to_string(),
            message,
        };
        // The first JSON value, then whatever follows it.
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        let value = match stream.next() {
            Some(Ok(v)) => v,
            Some(Err(e)) => return Err(err("comment", format!("bad job JSON: {e}"))),
            None => return Err(err("comment", "no job JSON after `mlsched:`".into())),
        };
        let tail = &rest[stream.byte_offset()..];
        let cancel_reason = match tail.strip_prefix(CANCEL_MARK) {
            Some(reason) => Some(reason.to_string()),
            None if tail.trim().is_empty() => None,
            None => {
                return Err(err(
                    "comment",
                    format!("unexpected text after the job JSON: `{}`", tail.trim()),
                ))
            }
        };
        let Value::Object(mut job) = value else {
            return Err(err(
                "comment",
                "the job JSON must be an object of the kind's job fields".into(),
            ));
        };
        match job.get("id") {
            None => {
                job.insert("id".into(), Value::String(job_id.to_string()));
            }
            Some(Value::String(s)) if !s.is_empty() => {}
            Some(other) => {
                return Err(err(
                    "id",
                    format!("must be a non-empty string, got {other}"),
                ))
            }
        }
        Ok(Some(Self { job, cancel_reason }))
    }

    /// The job's id (always set by [`Self::parse`]).
    pub fn id(&self) -> &str {
        self.job.get("id").and_then(Value::as_str).unwrap_or("")
    }

    /// The comment with `reason` as the cancel reason. The job JSON is written back as parsed
    /// (with its `id`); line breaks in `reason` become spaces (a comment is one line).
    pub fn with_cancel(&self, reason: &str) -> String {
        let reason: String = reason
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        format!(
            "{PREFIX}{}{CANCEL_MARK}{reason}",
            Value::Object(self.job.clone())
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_prefix_is_not_ours() {
        assert_eq!(MlschedComment::parse(1, "plain").unwrap(), None);
        assert_eq!(MlschedComment::parse(1, "").unwrap(), None);
    }

    #[test]
    fn id_defaults_to_the_slurm_job_id() {
        let c = MlschedComment::parse(42, r#"mlsched:{"weight": 3}"#)
            .unwrap()
            .unwrap();
        assert_eq!(c.id(), "42");
        let c = MlschedComment::parse(42, r#"mlsched:{"id": "j1"}"#)
            .unwrap()
            .unwrap();
        assert_eq!(c.id(), "j1");
    }

    #[test]
    fn cancel_reason_round_trips() {
        let c = MlschedComment::parse(7, r#"mlsched:{"id":"a"}"#)
            .unwrap()
            .unwrap();
        let text = c.with_cancel("rejected: no\ncapacity");
        assert_eq!(
            text,
            r#"mlsched:{"id":"a"} mlsched-cancel:rejected: no capacity"#
        );
        let back = MlschedComment::parse(7, &text).unwrap().unwrap();
        assert_eq!(back.job, c.job);
        assert_eq!(back.cancel_reason.as_deref(), Some("rejected: no capacity"));
    }

    #[test]
    fn bad_comments_name_the_job_and_the_field() {
        for (text, field) in [
            ("mlsched:{\"weight\":", "comment"),
            ("mlsched:", "comment"),
            ("mlsched:[1, 2]", "comment"),
            ("mlsched:{} trailing", "comment"),
            ("mlsched:{\"id\": 5}", "id"),
            ("mlsched:{\"id\": \"\"}", "id"),
        ] {
            let e = MlschedComment::parse(99, text).unwrap_err();
            let SlurmError::Comment {
                job_id, field: f, ..
            } = &e
            else {
                panic!("{e}")
            };
            assert_eq!((*job_id, f.as_str()), (99, field), "{text}: {e}");
            assert!(e.to_string().starts_with("Slurm job 99: "), "{e}");
        }
    }
}
