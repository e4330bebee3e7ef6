//! Scenario and result documents of `docs/formats.md`, one module per kind, and [`parse`].
//!
//! Parsing is strict: unknown fields are errors naming the field, numbers are checked for range
//! and integrality by the kind's `validate`, and every error names the job/server/node and the
//! field. Numbers are read as f64 and checked here (not by serde's integer types) so that a
//! negative or fractional count is reported with its job id instead of a bare serde message.
pub mod check;
mod path;
pub mod servers;
pub mod throughput;

use crate::error::InputError;
use serde::de::DeserializeOwned;

/// The five scenario kinds.
pub const KINDS: [&str; 5] = ["oasis", "online", "placement", "preempt", "route"];

/// A parsed (not yet validated) scenario document of any kind: [`crate::kinds::oasis::doc::OasisDoc`] and its
/// siblings, or [`crate::engine::NotBuilt`] for a kind this build leaves out (its feature off).
#[derive(Clone, Debug)]
// A kind left out of the build is an empty variant (`NotBuilt`): not a size difference.
#[allow(clippy::large_enum_variant)]
pub enum ScenarioDoc {
    /// `"oasis"`
    Oasis(<crate::engine::Oasis as crate::engine::Kind>::Doc),
    /// `"online"`
    Online(<crate::engine::Online as crate::engine::Kind>::Doc),
    /// `"placement"`
    Placement(<crate::engine::Placement as crate::engine::Kind>::Doc),
    /// `"preempt"`
    Preempt(<crate::engine::Preempt as crate::engine::Kind>::Doc),
    /// `"route"`
    Route(<crate::engine::Route as crate::engine::Kind>::Doc),
}

impl ScenarioDoc {
    /// The document's kind.
    pub fn kind(&self) -> &'static str {
        use crate::engine::Kind;
        crate::dispatch!(self, _d, K => K::NAME)
    }

    /// Number of jobs.
    pub fn jobs(&self) -> usize {
        use crate::engine::Kind;
        crate::dispatch!(self, d, K => K::jobs(d))
    }

    /// Checks every value (the errors `mlsched run` reports), without running.
    pub fn validate(&self) -> Result<(), InputError> {
        use crate::engine::Kind;
        crate::dispatch!(self, d, K => K::validate(d))
    }
}

/// The top level of a document as far as [`parse`] needs it: `kind`, every other field skipped
/// without being stored (so a huge document is never held twice as a JSON tree).
#[derive(serde::Deserialize)]
struct Probe {
    kind: Option<serde_json::Value>,
}

/// Any JSON text as a [`serde_json::Value`] tree, for the crates above this one (the wasm's
/// visualiser compares documents with it). Not generic and never inlined: each crate that calls
/// `serde_json::from_str::<Value>` itself compiles a copy of the `Value` parser of its own
/// (about 4 KB of wasm); this is the copy [`parse`] already needs for `kind`.
#[inline(never)]
pub fn json_value(text: &str) -> Result<serde_json::Value, serde_json::Error> {
    serde_json::from_str(text)
}

/// The `kind` of a scenario document, read without parsing the rest of it (any kind, built
/// into this build or not): the errors of [`parse`] for a document that is not a JSON object or
/// whose `kind` is missing or not a string. Unknown kinds are returned as they are.
pub fn kind_of(text: &str) -> Result<String, InputError> {
    let what = match text.trim_start().as_bytes().first() {
        Some(b'{') => None,
        Some(b'[') => Some("an array"),
        Some(b'"') => Some("a string"),
        Some(b't' | b'f') => Some("a boolean"),
        Some(b'n') => Some("null"),
        Some(b'-' | b'0'..=b'9') => Some("a number"),
        _ => Some(""),
    };
    let not_json =
        |e: serde_json::Error| InputError::new("document", "", format!("not valid JSON: {e}"));
    if let Some(what) = what {
        // Report a syntax error as such; a well-formed non-object as what it is.
        serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(not_json)?;
        return Err(InputError::new(
            "document",
            "",
            format!("must be a JSON object, got {what}"),
        ));
    }
    let probe: Probe = serde_json::from_str(text).map_err(not_json)?;
    match probe.kind {
        Some(serde_json::Value::String(k)) => Ok(k),
        Some(other) => Err(InputError::new(
            "scenario",
            "kind",
            format!("must be a string, got {other}"),
        )),
        None => Err(InputError::new(
            "scenario",
            "kind",
            format!("missing; expected one of {}", KINDS.join(", ")),
        )),
    }
}

/// Parses a scenario document (any kind) without validating its values. A document of a kind
/// this build leaves out (its cargo feature off) is refused, naming the kind and the module to
/// load.
pub fn parse(text: &str) -> Result<ScenarioDoc, InputError> {
    let kind = kind_of(text)?;
    Ok(match kind.as_str() {
        #[cfg(feature = "oasis")]
        "oasis" => ScenarioDoc::Oasis(strict(text)?),
        #[cfg(feature = "online")]
        "online" => ScenarioDoc::Online(strict(text)?),
        #[cfg(feature = "placement")]
        "placement" => ScenarioDoc::Placement(strict(text)?),
        #[cfg(feature = "preempt")]
        "preempt" => ScenarioDoc::Preempt(strict(text)?),
        #[cfg(feature = "route")]
        "route" => ScenarioDoc::Route(strict(text)?),
        other if KINDS.contains(&other) => return Err(not_built(other)),
        other => {
            return Err(InputError::new(
                "scenario",
                "kind",
                format!(
                    "unknown kind `{other}`; expected one of {}",
                    KINDS.join(", ")
                ),
            ))
        }
    })
}

/// The kinds this build can parse and run (cargo features of this crate; all five by default).
pub fn built_kinds() -> impl Iterator<Item = &'static str> {
    KINDS.into_iter().filter(|k| is_built(k))
}

/// Whether documents of `kind` are built into this build (its cargo feature is on).
pub fn is_built(kind: &str) -> bool {
    const BUILT: [(&str, bool); 5] = [
        ("oasis", cfg!(feature = "oasis")),
        ("online", cfg!(feature = "online")),
        ("placement", cfg!(feature = "placement")),
        ("preempt", cfg!(feature = "preempt")),
        ("route", cfg!(feature = "route")),
    ];
    BUILT.iter().any(|&(k, built)| built && k == kind)
}

/// The error for a document of a known kind this build leaves out: it names the kind, the
/// kinds built in, and the module to load instead (the web package's per-kind modules are named
/// by kind: `mlsched-<kind>`).
fn not_built(kind: &str) -> InputError {
    let built: Vec<&str> = built_kinds().collect();
    InputError::new(
        "scenario",
        "kind",
        format!(
            "kind `{kind}` is not built into this module (it has: {}); load the `{kind}` module (mlsched-{kind})",
            built.join(", ")
        ),
    )
}

/// Deserialises `text` into `T`, reporting the JSON path of any structural error and, where the
/// path is inside `jobs[i]`, the job's id. The path is derived from the error's position
/// ([`path`]), so the documents' serde code is compiled once, without path tracking.
fn strict<T: DeserializeOwned>(text: &str) -> Result<T, InputError> {
    serde_json::from_str(text).map_err(|e| {
        let msg = strip_position(&e.to_string());
        let path = path::of_error(text, &e, &msg);
        let (subject, mut field) = subject_of_path(text, &path);
        // "missing field `x`" names the field itself: report it as the field.
        if let Some(name) = msg
            .strip_prefix("missing field `")
            .and_then(|m| m.strip_suffix('`'))
        {
            field = if field.is_empty() {
                name.to_string()
            } else {
                format!("{field}.{name}")
            };
            return InputError::new(subject, field, "missing (required)");
        }
        InputError::new(subject, field, msg)
    })
}

fn strip_position(msg: &str) -> String {
    match msg.find(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// Splits `jobs[3].epochs` into ("job `id-of-3`", "epochs") using a lenient re-parse for ids.
fn subject_of_path(text: &str, path: &str) -> (String, String) {
    let lists = [
        ("jobs", "job"),
        ("servers", "server"),
        ("workers", "worker"),
    ];
    for (list, name) in lists {
        let prefix = format!("{list}[");
        if let Some(rest) = path.strip_prefix(&prefix) {
            if let Some(close) = rest.find(']') {
                if let Ok(i) = rest[..close].parse::<usize>() {
                    let field = rest[close + 1..].trim_start_matches('.').to_string();
                    let id = serde_json::from_str::<serde_json::Value>(text)
                        .ok()
                        .and_then(|v| v.get(list)?.get(i)?.get("id")?.as_str().map(str::to_string));
                    let subject = match id {
                        Some(id) => format!("{name} `{id}`"),
                        None => format!("{name} #{i}"),
                    };
                    return (subject, field);
                }
            }
        }
    }
    (
        "scenario".to_string(),
        if path == "." {
            String::new()
        } else {
            path.to_string()
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_of_reads_only_the_kind() {
        assert_eq!(
            kind_of(r#"{"kind": "route", "x": [1, 2]}"#).unwrap(),
            "route"
        );
        assert_eq!(kind_of(r#"{"kind": "nope"}"#).unwrap(), "nope");
        assert_eq!(kind_of("{}").unwrap_err().field, "kind");
        assert_eq!(kind_of("[]").unwrap_err().subject, "document");
    }

    /// Each kind whose feature is on parses; each other known kind is the typed error naming
    /// the module to load (`cargo test -p mlsched-scenario --lib --no-default-features
    /// --features oasis` runs the second half).
    #[test]
    fn a_kind_left_out_is_refused_naming_its_module() {
        for (name, text) in crate::bundled::EVERY_KIND {
            let kind = kind_of(text).unwrap();
            match parse(text) {
                Ok(d) => assert!(is_built(&kind) && d.kind() == kind, "{name}"),
                Err(e) => {
                    assert!(!is_built(&kind), "{name}: {e}");
                    assert_eq!((e.subject.as_str(), e.field.as_str()), ("scenario", "kind"));
                    assert!(
                        e.problem
                            .starts_with(&format!("kind `{kind}` is not built into this module"))
                            && e.problem
                                .ends_with(&format!("load the `{kind}` module (mlsched-{kind})")),
                        "{name}: {e}"
                    );
                }
            }
        }
        let all = cfg!(all(
            feature = "oasis",
            feature = "online",
            feature = "placement",
            feature = "preempt",
            feature = "route"
        ));
        assert_eq!(built_kinds().count() == KINDS.len(), all);
    }
}
