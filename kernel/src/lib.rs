//! # mlsched-kernel
//!
//! A deterministic, embeddable scheduling kernel for distributed machine-learning training jobs.
//! One `no_std` core implements five published schedulers and the baselines they are compared
//! against:
//!
//! | module | paper | decides |
//! |---|---|---|
//! | [`oasis`] | Bao et al. 2018 (OASiS) | admission + per-slot worker/PS placement under exponential prices |
//! | [`online`] | Zhou et al. 2022 | start, duration and placement minimising weighted completion time |
//! | [`placement`] | Liu et al. 2024 (HAS/JPS) | heterogeneity-aware worker categories and assignment |
//! | [`preempt`] | Wang et al. 2022 | preemptive chunk dispatch over edge workers and the cloud |
//! | [`route`] | Song et al. 2023 (CSRP) | job start times, compute nodes and network paths (PSO) |
//! | [`baseline`] | the papers' comparisons | FIFO, DRF, Tiresias-LAS, Optimus |
//!
//! [`restart`] is the cost of preemption (a restart time per allocation change) that the
//! policies which move or stop jobs share when a scenario sets one (`docs/restart.md`).
//!
//! Every one of them (each algorithm, each baseline, each placement method and route policy)
//! implements [`api::Scheduler`]; [`driver::Driver`] feeds any of them events in the one
//! documented order and writes every event and decision record through one [`log::LogSink`].
//!
//! ## Rules every module keeps
//! - `#![no_std]`, `#![forbid(unsafe_code)]`; features layered `alloc` -> `std`. Without `alloc`
//!   the core (resource vectors, the ledger over caller storage, prices, PRNG, log hashing) builds
//!   for any target; the owned scenario models and schedulers need `alloc` to be *built*, but
//!   allocate nothing once built: decision paths use scratch owned by the scheduler value.
//! - Every bound is a named constant in [`limits`]; exceeding one is a typed error.
//! - Determinism: floats only through `libm`, no `mul_add`, total tie-breaks (by index) in every
//!   sort ([`order`]), randomness only from [`rng::SplitMix64`], time is always an argument.
//! - Errors are small `Copy` enums with `Display` ([`error`]); callers add context.
//!
//! serde and postcard are unconditional dependencies: the decision-log codec ([`log`]) that
//! makes every run reproducible bit for bit is part of the no-alloc core.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod api;
pub mod driver;
pub mod error;
pub mod index;
pub mod ledger;
pub mod limits;
pub mod log;
pub mod logfile;
pub mod num;
pub mod order;
pub mod record;
pub mod resources;
pub mod restart;
pub mod rng;
#[cfg(feature = "alloc")]
pub mod rolling;
pub mod snapshot;
pub mod world;

#[cfg(feature = "alloc")]
pub mod model;

#[cfg(feature = "alloc")]
pub mod baseline;
#[cfg(feature = "alloc")]
mod heap;
#[cfg(feature = "alloc")]
pub mod oasis;
#[cfg(feature = "alloc")]
pub mod online;
#[cfg(feature = "alloc")]
pub mod placement;
#[cfg(feature = "alloc")]
pub mod preempt;
pub mod price;
#[cfg(feature = "alloc")]
pub mod route;

pub use error::{CapacityError, LedgerError, Limit};
pub use resources::ResourceVec;

/// A time slot index (0-based). Time is always passed in; the kernel never reads a clock.
pub type Slot = u32;
