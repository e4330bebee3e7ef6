//! Stand-ins for the kinds a build leaves out (issue 14: one web module per kind).
//!
//! With a kind's cargo feature off, [`crate::engine::Oasis`] (and its siblings) is the stand-in
//! below: its document and result types are [`NotBuilt`], an enum without values, so
//! `ScenarioDoc::Oasis` and `ResultDoc::Oasis` can never be made and every arm of
//! [`dispatch!`](crate::dispatch) and [`dispatch_result!`](crate::dispatch_result) for the kind
//! is dead code the compiler drops, along with the kind's engine, validation, serde code and
//! kernel algorithms. `doc::parse` refuses such a document with an error naming the kind.
//! Kind-independent data (the name, the policy list) stays available.

/// The document and result type of a kind this build leaves out: it has no values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotBuilt {}

impl serde::Serialize for NotBuilt {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        match *self {}
    }
}

/// Defines the stand-in of one kind: its name and policies, and no documents (unused when
/// every kind is built).
#[allow(unused_macros)]
macro_rules! not_built {
    ($ty:ident, $name:literal, $policies:expr) => {
        #[doc = concat!("Kind `\"", $name, "\"`, not built into this build (cargo feature `", $name, "` off).")]
        pub struct $ty;

        impl crate::engine::Kind for $ty {
            const NAME: &'static str = $name;
            type Doc = NotBuilt;
            type Result = NotBuilt;

            fn policies() -> &'static [&'static str] {
                $policies
            }

            fn engine<L: mlsched_kernel::log::LogSink>(
                doc: &NotBuilt,
                _: &crate::run::RunOptions,
            ) -> Result<super::Built<L>, crate::RunError> {
                match *doc {}
            }

            fn jobs(doc: &NotBuilt) -> usize {
                match *doc {}
            }

            fn job_id(doc: &NotBuilt, _: usize) -> Option<&str> {
                match *doc {}
            }

            fn validate(doc: &NotBuilt) -> Result<(), crate::InputError> {
                match *doc {}
            }

            fn summary_text(r: &NotBuilt) -> String {
                match *r {}
            }

            fn log_hash(r: &NotBuilt) -> &str {
                match *r {}
            }

            fn policy(r: &NotBuilt) -> &str {
                match *r {}
            }

            fn server_ids(doc: &NotBuilt) -> Vec<String> {
                match *doc {}
            }

            fn capacity_len(doc: &NotBuilt) -> usize {
                match *doc {}
            }

            fn set_statuses(
                r: &mut NotBuilt,
                _: &dyn Fn(u32) -> Option<crate::status::JobStatus>,
            ) {
                match *r {}
            }

            fn occupancy_mut(r: &mut NotBuilt) -> &mut Vec<crate::occupancy::Span> {
                match *r {}
            }

            fn statuses(r: &NotBuilt) -> crate::status::StatusCounts {
                match *r {}
            }

            fn occupancy(r: &NotBuilt) -> &[crate::occupancy::Span] {
                match *r {}
            }

            fn result_of(_: &crate::run::ResultDoc) -> Option<&NotBuilt> {
                // No result of a kind this build leaves out can exist.
                None
            }

            fn doc_of(_: &crate::doc::ScenarioDoc) -> Option<&NotBuilt> {
                // Nor a document of it.
                None
            }
        }
    };
}

#[cfg(not(feature = "oasis"))]
not_built!(Oasis, "oasis", crate::kinds::baseline::OASIS_POLICIES);
#[cfg(not(feature = "online"))]
not_built!(Online, "online", crate::kinds::baseline::ONLINE_POLICIES);
#[cfg(not(feature = "placement"))]
not_built!(
    Placement,
    "placement",
    crate::kinds::placement::exec::policies()
);
#[cfg(not(feature = "preempt"))]
not_built!(Preempt, "preempt", crate::kinds::preempt::exec::policies());
#[cfg(not(feature = "route"))]
not_built!(Route, "route", crate::kinds::route::exec::policies());
