//! [`Grid`]: the slot trees. A pool's free rooms and prices in force at every slot, with a
//! tree of summaries per slot, so that listing the cheapest servers of slot t is a best-first
//! search whose cost follows the servers and nodes it opens ([`super::fast`], `docs/oasis.md`
//! "The slot trees").
//!
//! The sweep of the time-major copy keeps one slot's state current by reading the usage changes
//! between a decision's slots; on a congested cluster that is thousands of servers a slot, while
//! a listing needs a few dozen. Here nothing is swept:
//!
//! - each slot keeps, per server, the 2R values in force there: its free rooms c^r - g^r
//!   and, in an array of their own, its prices p^r (a listing reads a leaf's prices
//!   together), and per resource a byte that rounds the free room down ([`room_code`]);
//! - over nodes of [`LEAF`] servers, then nodes of [`FAN`] nodes up to one root, each node keeps
//!   its least price per resource, its least peak prices (the group floor's inputs,
//!   [`crate::oasis::units::group_floor`]), its largest free room per resource and, per level of
//!   the pool's key resource ([`RoomLevels`]), the largest free rooms of its servers at that level;
//! - servers sit in the tree by capacity vector (then index), so a node holds servers alike;
//! - an idle server (no usage) is not in the tree: every idle server of a pool with the same
//!   idle prices (an idle stream) has the same unit price for any demand, so they are listed in
//!   index order from a bit per server and slot.
//!
//! Stale summaries: a summary only has to bound the servers under it (least prices and peaks
//! at most theirs, largest free rooms at least theirs) for a listing to open every node that
//! may hold a server it lists, and so to list the same servers; a tighter one only lets it
//! open fewer nodes. A commit only adds usage, so it makes a server's values worse (room down,
//! prices up) or brings an idle server into the tree: the nodes above a changed server take
//! its new values at once where they are better ([`Grid::changed`]), and the leaf is queued
//! to be redone; [`Grid::tidy`] redoes a bounded number of queued leaves each decision, then
//! the nodes above them that changed. A large commit's summaries are so spread over the
//! decisions after it.
//!
//! The grid is derived from the breakpoints and dense in T x H, so a pool keeps it only within
//! [`GRID_VALUES_MAX`] values (and at most [`STREAMS_MAX`] idle streams); beyond, its decisions
//! sweep the time-major copy, with the same results.
//!
//! | module | what |
//! |---|---|
//! | `cells` | [`Grid`]: per slot and server the values in force (free rooms, prices, room codes) and the idle bits of the idle streams; reads and writes of one server's values |
//! | `build` | [`Grid::idle`]: a pool's grid with every server idle, within [`GRID_VALUES_MAX`] |
//! | `room` | [`RoomLevels`] (the joint room test of the summaries) and [`room_code`] (a free room in one byte) |
//! | `level` | one level of the summary tree: its summaries, its children's room codes, its queue of stale nodes |
//! | `summary` | the summaries: layout, recomputed from the level below, merged at once on a change, tidied later |
//! | `tests` | (tests) the comparisons of grids the market's tests use, and the tests of the queue and room codes |

mod build;
mod cells;
mod level;
mod room;
mod summary;

pub(crate) use cells::Grid;
pub(crate) use room::{room_code, RoomLevels};

/// Servers per node of the tree's first level.
pub(crate) const LEAF: usize = 16;

/// Nodes per node of the levels above.
pub(crate) const FAN: usize = 16;

/// Most free-room levels of a pool's key resource kept per node ([`RoomLevels`]).
pub(crate) const ROOM_LEVELS: usize = 8;

/// Leaves whose summaries one light decision redoes per pool ([`Grid::tidy`], called by
/// [`super::OasisScheduler`]), with the nodes above them: a commit leaves its cells' leaves
/// loose, and the light decisions after it (most are rejections that list a few slots) tighten
/// them, so that no heavy decision pays for a large commit's summaries.
pub(crate) const TIDY_LEAVES: usize = 2048;

/// A decision is light ([`TIDY_LEAVES`]) when it admits nothing and lists at most this many
/// slots.
pub(crate) const TIDY_LIGHT_SLOTS: u64 = 8;

/// Queued leaves and nodes beyond which every decision tidies, light or not, so that a run of
/// heavy decisions cannot leave the summaries ever looser.
pub(crate) const TIDY_BACKLOG: usize = 1 << 18;

/// Most values one pool's grid keeps: cells, summaries and idle bits, counted as 8 bytes each
/// (2^26: 512 MiB). A larger pool keeps none and its decisions sweep the time-major copy.
pub(crate) const GRID_VALUES_MAX: usize = 1 << 26;

/// Most idle streams (distinct idle price vectors) a pool's grid keeps: a pool with more keeps
/// no grid. Idle prices are L on every resource with capacity and U^r on one without, so a
/// pool has one stream per pattern of resources without capacity.
pub(crate) const STREAMS_MAX: usize = 16;

#[cfg(test)]
mod tests;
