//! One folder per scenario kind: everything the document layer knows of a kind, in one place.
//!
//! Every kind folder has the same four files:
//!
//! | file | one idea |
//! |---|---|
//! | `doc.rs` | the kind's scenario and result documents (`docs/formats.md`), their validation and messages |
//! | `engine.rs` | the kind's [`crate::engine::Kind`]: its policies, the kernel scheduler it builds, how decisions become result rows |
//! | `exec.rs` | the result rows, the summary and the human summary text |
//! | `occupancy.rs` | who held which server when: the kind's `occupancy` spans (`crate::occupancy`) |
//!
//! Kinds with baselines beside their algorithm (`oasis`, `online`) split `engine.rs` in three:
//! `engine.rs` the [`crate::engine::Kind`], `algorithm.rs` the engine of the paper's algorithm,
//! `baselines.rs` the engine of the baselines.
//!
//! | kind | paper | folder |
//! |---|---|---|
//! | `oasis` | OASiS, Bao et al. 2018 | [`oasis`] |
//! | `online` | online weighted completion time, Zhou et al. 2022 | [`online`] |
//! | `placement` | HAS/JPS, Liu et al. 2024 | [`placement`] |
//! | `preempt` | preemptive edge-cloud chunks, Wang et al. 2022 | [`preempt`] |
//! | `route` | CSRP, Song et al. 2023 | [`route`] |
//!
//! [`baseline`] holds the result rows of the baselines the `oasis` and `online` kinds share.
//! A kind whose cargo feature is off keeps its documents (so a document of it is refused with a
//! clear message) but not its engine ([`crate::engine::NotBuilt`]).
pub mod baseline;
pub mod oasis;
pub mod online;
pub mod placement;
pub mod preempt;
pub mod route;
