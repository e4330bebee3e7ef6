//! Who holds which server when: the `occupancy` field of every result document
//! (`docs/formats.md`, "Occupancy").
//!
//! Each kind derives its [`Span`]s from its own result data, in one function of its own module
//! ([`oasis::spans`], [`online::spans`], [`placement::spans`], [`preempt::spans`],
//! [`route::spans`]); `mlsched compare`'s utilisation (`lab/src/compare/usage.rs`) reads the
//! typed list instead of re-deriving it from each kind's per-job fields. The Chrome-trace export
//! does not: it starts from a decision log alone, which holds no result document
//! (`lab/src/export/mod.rs` says why).
//!
//! The rule, the same for every kind: a span is one `count` of units of `role` that `job` holds
//! on `server` over `from..to` (slots; seconds for kind `placement`); units the same job holds on
//! the same server in the same role at the same time are summed, consecutive slots with the same
//! `(job, server, role, count)` are one span, no span has count 0 or `from >= to`, and the list
//! is sorted by `(job, from, server, role)`, strings in byte order.

use serde::{Deserialize, Serialize};

/// What a job runs on a server: its name is the `role` string of a [`Span`].
///
/// The variants are declared in the order of their names, so that the derived order is the
/// byte order of the strings the sorting rule uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// `"ps"`: parameter servers.
    Ps,
    /// `"worker"`: workers (a GPU for kind `placement`, a worker slot for kind `route`).
    Worker,
}

impl Role {
    /// The name written in result documents.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Ps => "ps",
            Role::Worker => "worker",
        }
    }
}

/// `count` units of `role` that `job` holds on `server` from `from` (inclusive) to `to`
/// (exclusive).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    /// The job's id.
    pub job: String,
    /// The server's id (per kind: `docs/formats.md`, "Occupancy").
    pub server: String,
    /// What the units are.
    pub role: Role,
    /// How many units (>= 1).
    pub count: u32,
    /// First slot held (seconds for kind `placement`).
    pub from: u64,
    /// Slot after the last one held (> `from`).
    pub to: u64,
}

impl Span {
    /// The sorting key: `(job, from, server, role)`.
    fn key(&self) -> (&str, u64, &str, Role) {
        (&self.job, self.from, &self.server, self.role)
    }
}

/// `count` units of `role` held by `job` on `server` over `from..to`, as a kind found them.
struct Piece {
    job: String,
    server: String,
    role: Role,
    from: u64,
    to: u64,
    count: u64,
}

impl Piece {
    /// What spans merge over: `(job, server, role)`.
    fn group(&self) -> (&str, &str, Role) {
        (&self.job, &self.server, self.role)
    }
}

/// Collects the pieces a kind holds and turns them into the sorted, merged list.
#[derive(Default)]
pub(crate) struct Builder {
    pieces: Vec<Piece>,
}

impl Builder {
    /// `count` units of `role` held by `job` on `server` over `span` = `from..to` (nothing if
    /// the count is 0 or the span empty).
    pub(crate) fn hold(
        &mut self,
        job: &str,
        server: String,
        role: Role,
        count: u64,
        span: (u64, u64),
    ) {
        let (from, to) = span;
        if count > 0 && from < to {
            self.pieces.push(Piece {
                job: job.to_string(),
                server,
                role,
                from,
                to,
                count,
            });
        }
    }

    /// The spans: per `(job, server, role)`, the pieces summed over time (a sweep over their
    /// ends), equal neighbours merged; then sorted by `(job, from, server, role)`.
    pub(crate) fn finish(mut self) -> Vec<Span> {
        crate::order::sort_by(&mut self.pieces, &|a, b| a.group().cmp(&b.group()));
        let mut out = Vec::new();
        for group in self.pieces.chunk_by(|a, b| a.group() == b.group()) {
            sweep(group, &mut out);
        }
        crate::order::sort_by(&mut out, &|a, b| a.key().cmp(&b.key()));
        out
    }
}

/// The spans of one `(job, server, role)`: the count held between consecutive piece ends,
/// neighbours with the same count merged.
fn sweep(group: &[Piece], out: &mut Vec<Span>) {
    let Some(first) = group.first() else {
        return;
    };
    // +count at `from`, -count at `to`; all changes at one time are applied before the count
    // is read, so their order does not matter.
    let mut ends: Vec<(u64, i128)> = group
        .iter()
        .flat_map(|p| [(p.from, p.count as i128), (p.to, -(p.count as i128))])
        .collect();
    crate::order::sort(&mut ends);
    let mut held: i128 = 0;
    let mut i = 0;
    let mut mine: Vec<Span> = Vec::new();
    while i < ends.len() {
        let t = ends[i].0;
        while i < ends.len() && ends[i].0 == t {
            held += ends[i].1;
            i += 1;
        }
        let Some(&(next, _)) = ends.get(i) else {
            break;
        };
        if held <= 0 {
            continue;
        }
        let count = u32::try_from(held).unwrap_or(u32::MAX);
        match mine.last_mut() {
            Some(s) if s.to == t && s.count == count => s.to = next,
            _ => mine.push(Span {
                job: first.job.clone(),
                server: first.server.clone(),
                role: first.role,
                count,
                from: t,
                to: next,
            }),
        }
    }
    out.append(&mut mine);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(job: &str, server: &str, role: Role, count: u32, from: u64, to: u64) -> Span {
        Span {
            job: job.into(),
            server: server.into(),
            role,
            count,
            from,
            to,
        }
    }

    #[test]
    fn merges_equal_neighbours_sums_overlaps_and_sorts() {
        let mut b = Builder::default();
        b.hold("b", "w0".into(), Role::Worker, 2, (0, 1));
        b.hold("b", "w0".into(), Role::Worker, 2, (1, 2));
        b.hold("b", "w0".into(), Role::Worker, 1, (2, 3));
        b.hold("b", "w0".into(), Role::Worker, 1, (5, 6));
        b.hold("a", "h1".into(), Role::Worker, 1, (0, 4));
        b.hold("a", "h1".into(), Role::Worker, 1, (2, 4));
        b.hold("a", "h1".into(), Role::Ps, 1, (0, 4));
        b.hold("a", "h0".into(), Role::Worker, 0, (0, 4));
        b.hold("a", "h0".into(), Role::Worker, 3, (4, 4));
        assert_eq!(
            b.finish(),
            vec![
                span("a", "h1", Role::Ps, 1, 0, 4),
                span("a", "h1", Role::Worker, 1, 0, 2),
                span("a", "h1", Role::Worker, 2, 2, 4),
                span("b", "w0", Role::Worker, 2, 0, 2),
                span("b", "w0", Role::Worker, 1, 2, 3),
                span("b", "w0", Role::Worker, 1, 5, 6),
            ]
        );
    }

    #[test]
    fn roles_serialise_as_their_names() {
        let s = serde_json::to_string(&span("j", "w0", Role::Ps, 1, 0, 1)).unwrap();
        assert_eq!(
            s,
            r#"{"job":"j","server":"w0","role":"ps","count":1,"from":0,"to":1}"#
        );
        assert_eq!(Role::Ps.as_str(), "ps");
        assert_eq!(Role::Worker.as_str(), "worker");
    }
}
