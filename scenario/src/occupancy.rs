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

/// `count` units of `role` held by job `job` on server `server` over `from..to`, as a kind
/// found them; `job` and `server` index the builder's [`Names`].
#[derive(Clone, Copy)]
struct Piece {
    job: u32,
    server: u32,
    role: Role,
    from: u64,
    to: u64,
    count: u64,
}

/// A span before its names are written: `job` and `server` are the names' ranks in byte order
/// ([`Names::ranks`]), so integer comparisons give the document's order.
#[derive(Clone, Copy)]
struct Ranked {
    job: u32,
    server: u32,
    role: Role,
    count: u32,
    from: u64,
    to: u64,
}

/// Distinct strings, each stored once: pieces compare and sort by small integers, not by
/// their strings (a kind such as `preempt` holds one piece per chunk and run of slots, and
/// comparing their ids byte by byte was most of a small run's time).
#[derive(Default)]
struct Names {
    /// The strings, in the order first seen.
    list: Vec<String>,
    /// Each string's index in `list`.
    index: std::collections::BTreeMap<String, u32>,
}

impl Names {
    /// The index of `name`, added if new (`last` is the previous lookup: kinds hold one job's
    /// pieces one after another, so most lookups are that one).
    fn of(&mut self, name: &str, last: &mut Option<u32>) -> u32 {
        if let Some(k) = *last {
            if self.list.get(k as usize).map(String::as_str) == Some(name) {
                return k;
            }
        }
        let k = match self.index.get(name) {
            Some(&k) => k,
            None => {
                let k = self.list.len() as u32;
                self.list.push(name.to_string());
                self.index.insert(name.to_string(), k);
                k
            }
        };
        *last = Some(k);
        k
    }

    /// The strings in rank order (`ranks` from [`Names::ranks`]).
    fn by_rank<'a>(&'a self, ranks: &[u32]) -> Vec<&'a str> {
        let mut v = vec![""; ranks.len()];
        for (name, &r) in self.list.iter().zip(ranks) {
            v[r as usize] = name.as_str();
        }
        v
    }

    /// `rank[i]`: the position of `list[i]` among the strings in byte order.
    fn ranks(&self) -> Vec<u32> {
        let n = self.list.len() as u32;
        let mut order: Vec<u32> = (0..n).collect();
        crate::order::sort_by(&mut order, &|&a, &b| {
            self.list[a as usize].cmp(&self.list[b as usize])
        });
        let mut rank = vec![0u32; order.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i as usize] = r as u32;
        }
        rank
    }
}

/// Collects the pieces a kind holds and turns them into the sorted, merged list.
#[derive(Default)]
pub(crate) struct Builder {
    pieces: Vec<Piece>,
    jobs: Names,
    servers: Names,
    last_job: Option<u32>,
    last_server: Option<u32>,
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
            let job = self.jobs.of(job, &mut self.last_job);
            let server = self.servers.of(&server, &mut self.last_server);
            self.pieces.push(Piece {
                job,
                server,
                role,
                from,
                to,
                count,
            });
        }
    }

    /// The spans: per `(job, server, role)`, the pieces summed over time (a sweep over their
    /// ends), equal neighbours merged; then sorted by `(job, from, server, role)`, strings in
    /// byte order.
    pub(crate) fn finish(mut self) -> Vec<Span> {
        let (jr, sr) = (self.jobs.ranks(), self.servers.ranks());
        for p in &mut self.pieces {
            p.job = jr[p.job as usize];
            p.server = sr[p.server as usize];
        }
        let group = |p: &Piece| (p.job, p.server, p.role);
        crate::order::sort_by(&mut self.pieces, &|a, b| group(a).cmp(&group(b)));
        let mut ranked = Vec::new();
        for g in self.pieces.chunk_by(|a, b| group(a) == group(b)) {
            sweep(g, &mut ranked);
        }
        let key = |s: &Ranked| (s.job, s.from, s.server, s.role);
        crate::order::sort_by(&mut ranked, &|a, b| key(a).cmp(&key(b)));
        let (jobs, servers) = (self.jobs.by_rank(&jr), self.servers.by_rank(&sr));
        ranked
            .iter()
            .map(|s| Span {
                job: jobs[s.job as usize].to_string(),
                server: servers[s.server as usize].to_string(),
                role: s.role,
                count: s.count,
                from: s.from,
                to: s.to,
            })
            .collect()
    }
}

/// The spans of one `(job, server, role)`: the count held between consecutive piece ends,
/// neighbours with the same count merged.
fn sweep(group: &[Piece], out: &mut Vec<Ranked>) {
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
    let start = out.len();
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
        let merge = out.len() > start && out.last().is_some_and(|s| s.to == t && s.count == count);
        match out.last_mut() {
            Some(s) if merge => s.to = next,
            _ => out.push(Ranked {
                job: first.job,
                server: first.server,
                role: first.role,
                count,
                from: t,
                to: next,
            }),
        }
    }
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

    /// The rule of the module's head, written directly on strings: every unit counted per
    /// `(job, server, role, slot)`, then runs of equal counts, then the document's sort.
    /// (job, server, role, count, from..to), as `Builder::hold` takes them.
    type Held = (String, String, Role, u64, (u64, u64));

    fn by_the_rule(pieces: &[Held]) -> Vec<Span> {
        use std::collections::BTreeMap;
        let mut held: BTreeMap<(String, String, Role), BTreeMap<u64, u64>> = BTreeMap::new();
        for (job, server, role, count, (from, to)) in pieces {
            if *count == 0 {
                continue;
            }
            let slots = held
                .entry((job.clone(), server.clone(), *role))
                .or_default();
            for t in *from..*to {
                *slots.entry(t).or_default() += count;
            }
        }
        let mut out: Vec<Span> = Vec::new();
        for ((job, server, role), slots) in held {
            let mut mine: Vec<Span> = Vec::new();
            for (t, c) in slots {
                match mine.last_mut() {
                    Some(s) if s.to == t && u64::from(s.count) == c => s.to = t + 1,
                    _ => mine.push(span(&job, &server, role, c as u32, t, t + 1)),
                }
            }
            out.extend(mine);
        }
        out.sort_by(|a, b| {
            (&a.job, a.from, &a.server, a.role).cmp(&(&b.job, b.from, &b.server, b.role))
        });
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// The builder (names as ranks, a sweep over piece ends) gives the rule's list.
        #[test]
        fn builder_follows_the_rule(
            raw in proptest::collection::vec(
                (0u8..4, 0u8..4, proptest::bool::ANY, 0u64..4, 0u64..12, 0u64..6),
                0..40,
            )
        ) {
            // Names that share prefixes and differ in length, so byte order matters.
            let jobs = ["j", "j1", "j10", "k"];
            let servers = ["w0", "w10", "w2", "ps0"];
            let pieces: Vec<_> = raw
                .iter()
                .map(|&(j, s, ps, count, from, len)| {
                    let role = if ps { Role::Ps } else { Role::Worker };
                    (jobs[j as usize].to_string(), servers[s as usize].to_string(), role, count,
                     (from, from + len))
                })
                .collect();
            let mut b = Builder::default();
            for (job, server, role, count, span) in &pieces {
                b.hold(job, server.clone(), *role, *count, *span);
            }
            proptest::prop_assert_eq!(b.finish(), by_the_rule(&pieces));
        }
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
