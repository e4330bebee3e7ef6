//! How the comparison schedulers place a job (section 5.1): the nearest available compute
//! nodes from the PS (hops, ties by index) over the hop-shortest paths, starting only now.
use super::aggregate;
use super::cost::network_cost;
use super::records::RouteDecision;
use super::{RouteError, RouteScheduler, NONE, PATH_NODES_MAX};

impl RouteScheduler {
    /// Baselines: nearest free compute nodes (hops from the PS, ties by index), hop-shortest
    /// paths, start now. Returns false if fewer than `workers` slots are free now.
    pub(super) fn try_baseline(
        &mut self,
        j: u32,
        t: u32,
        sink: &mut dyn FnMut(&RouteDecision),
    ) -> Result<bool, RouteError> {
        let jb = self.jobs[j as usize];
        if jb.workers as u64 > self.lanes.free_at[0] || self.ps_down(j) {
            return Ok(false);
        }
        let n = self.g.nodes();
        let r = self.tables.ps_row[jb.ps as usize] as usize;
        let len = self.tables.hop_order_len[r] as usize;
        let mut k = 0usize;
        for q in 0..len {
            if k == jb.workers as usize {
                break;
            }
            let v = self.tables.hop_order[r * self.tables.computes + q];
            let free = self.lanes.free_lanes(v, t);
            for _ in 0..free.min(jb.workers - k as u32) {
                self.sc.wnodes[k] = v;
                k += 1;
            }
        }
        if k < jb.workers as usize {
            return Ok(false);
        }
        for w in 0..k {
            let pred = &self.tables.hop_pred[r * n..(r + 1) * n];
            let out = &mut self.sc.wpath[w * PATH_NODES_MAX..(w + 1) * PATH_NODES_MAX];
            let l = tree_path(pred, jb.ps, self.sc.wnodes[w], out)
                .ok_or(RouteError::PathTooLong { job: j })?;
            self.sc.wlen[w] = l as u32;
            self.sc.wcost[w] = self.path_cost(w)?;
        }
        self.commit(j, t, t, sink)?;
        Ok(true)
    }

    /// N (eq. 4) of worker `w`'s path in the scratch.
    fn path_cost(&mut self, w: usize) -> Result<f64, RouteError> {
        let l = self.sc.wlen[w] as usize;
        let nodes = &self.sc.wpath[w * PATH_NODES_MAX..w * PATH_NODES_MAX + l];
        let links = &mut self.sc.links[w * PATH_NODES_MAX..(w + 1) * PATH_NODES_MAX];
        let h = aggregate::links_of(&self.g, nodes, links).ok_or(RouteError::Scratch)?;
        Ok(network_cost(&self.g, &links[..h], self.f))
    }
}

/// The tree path src -> v (`pred` rooted at src) into `out`, or `None` if too long/unreachable.
fn tree_path(pred: &[u32], src: u32, v: u32, out: &mut [u32]) -> Option<usize> {
    let mut len = 0usize;
    let mut x = v;
    while x != src {
        if len + 1 >= out.len() || x == NONE {
            return None;
        }
        out[len] = x;
        len += 1;
        x = *pred.get(x as usize)?;
    }
    out[len] = src;
    len += 1;
    out[..len].reverse();
    Some(len)
}
