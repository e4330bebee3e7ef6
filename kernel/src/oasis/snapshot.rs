//! The restorable state of an [`OasisScheduler`] and its snapshots ([`crate::snapshot`], kind
//! [`TAG_OASIS`]): the priced cluster (market usage and prices), the decided flags and the
//! clock. The DP's scratch is rebuilt from the scenario by [`OasisScheduler::new`]. The
//! open-world state (per-job reservations, servers down, capacities set, submitted jobs) is
//! not in it: only a closed-world run round-trips.
use super::market::Market;
use super::{OasisError, OasisScheduler};
use crate::log::TAG_OASIS;
use crate::model::oasis::OasisScenario;
use crate::snapshot::{self, Snapshot, SnapshotError};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// The restorable state of an [`OasisScheduler`]: the priced cluster, which jobs were decided,
/// and the clock. Scratch is not part of it (it is rebuilt from the scenario).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OasisState {
    /// Usage and prices.
    pub market: Market,
    /// Per job: decided yet?
    pub decided: Vec<bool>,
    /// The last slot seen.
    pub now: u32,
}

/// [`OasisState`] by reference: the same postcard bytes, written without cloning.
#[derive(Serialize)]
struct OasisStateRef<'a> {
    market: &'a Market,
    decided: &'a [bool],
    now: u32,
}

impl OasisScheduler {
    /// A snapshot of the state (for persistence; restore with [`Self::restore`]).
    pub fn state(&self) -> OasisState {
        OasisState {
            market: self.market.clone(),
            decided: self.decided.clone(),
            now: self.now,
        }
    }

    /// Rebuilds the scheduler of `scn` in a saved state; [`OasisError::Shape`] if the state
    /// does not belong to this scenario or is inconsistent (see [`Self::check_state`]).
    pub fn restore(scn: &OasisScenario, state: OasisState) -> Result<Self, OasisError> {
        let mut s = Self::new(scn)?;
        s.check_state(&state).map_err(|_| OasisError::Shape)?;
        s.set_state(state);
        debug_assert!(
            s.check_state(&s.state()).is_ok(),
            "oasis: restored state fails its own check"
        );
        Ok(s)
    }

    /// Checks a saved state against the scenario this scheduler was built from: one decided
    /// flag per job, and a market of the same shape, bounds and capacities whose usage is
    /// finite and within capacity and whose prices are eq. (22) of that usage.
    pub fn check_state(&self, state: &OasisState) -> Result<(), SnapshotError> {
        snapshot::ensure(state.decided.len() == self.decided.len(), "decided")?;
        // Shape, bounds and capacities never change after the build: the live market is the model.
        state.market.check_restored(&self.market)
    }

    fn set_state(&mut self, state: OasisState) {
        let live = core::mem::replace(&mut self.market, state.market);
        self.market.rebuild_grids_like(&live);
        self.decided = state.decided;
        self.now = state.now;
    }

    fn state_ref(&self) -> OasisStateRef<'_> {
        OasisStateRef {
            market: &self.market,
            decided: &self.decided,
            now: self.now,
        }
    }
}

/// Snapshots of kind [`TAG_OASIS`]: the body is an [`OasisState`].
impl Snapshot for OasisScheduler {
    const KIND: u8 = TAG_OASIS;

    fn snapshot_into<'b>(&self, buf: &'b mut [u8]) -> Result<&'b [u8], SnapshotError> {
        snapshot::save_into(Self::KIND, &self.state_ref(), buf)
    }

    fn snapshot(&self) -> Result<Vec<u8>, SnapshotError> {
        snapshot::save(Self::KIND, &self.state_ref())
    }

    fn restore_snapshot(&mut self, bytes: &[u8]) -> Result<(), SnapshotError> {
        let state: OasisState = snapshot::restore(Self::KIND, bytes)?;
        self.check_state(&state)?;
        self.set_state(state);
        debug_assert!(
            self.check_state(&self.state()).is_ok(),
            "oasis: restored state fails its own check"
        );
        Ok(())
    }
}
