//! The one "absent" marker of the kernel's `u32` indices.
//!
//! Index arrays and linked lists (a predecessor node, the next segment of a plan, the worker
//! count a table has no entry for, the server a slot's cheapest list does not reach, ...) keep
//! plain `u32` entries rather than `Option<u32>`: half the memory, and the same layout on every
//! target. [`NONE`] is the entry for "no index here". Every index the limits of
//! [`crate::limits`] allow is below it, so it never names a real item.

/// "No index": the entry of a `u32` index array or link that points at nothing (`u32::MAX`).
pub const NONE: u32 = u32::MAX;
