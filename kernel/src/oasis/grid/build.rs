//! [`Grid::idle`]: the grid of a pool with every server idle (out of the tree, in its idle
//! stream), sized within [`super::GRID_VALUES_MAX`] values and [`super::STREAMS_MAX`] idle
//! streams, servers placed by capacity vector.
use super::level::{width, Level};
use super::{Grid, RoomLevels, FAN, GRID_VALUES_MAX, LEAF, ROOM_LEVELS, STREAMS_MAX};
use crate::limits::RESOURCES_MAX;
use alloc::vec;
use alloc::vec::Vec;

impl Grid {
    /// The grid of a pool of `servers` servers of `nr` resources over `slots` slots (capacities
    /// `cap` and idle prices `idle`, server-major, R values each) with every server idle: out
    /// of the tree, in its idle stream. `None` when it would exceed [`GRID_VALUES_MAX`] or
    /// [`STREAMS_MAX`] idle streams, or the pool is empty.
    pub(crate) fn idle(
        slots: u32,
        servers: usize,
        nr: usize,
        cap: &[f64],
        idle: &[f64],
        room: &RoomLevels,
    ) -> Option<Self> {
        if servers == 0 || nr == 0 || nr > RESOURCES_MAX || room.key >= nr {
            return None;
        }
        let (key, nl) = (room.key, room.theta.len().min(ROOM_LEVELS));
        let mut theta = [f64::INFINITY; ROOM_LEVELS];
        theta[..nl].copy_from_slice(&room.theta[..nl]);
        let t = slots as usize;
        let mut total = t.checked_mul(servers)?.checked_mul(2 * nr)?;
        let mut levels = Vec::new();
        let mut n = servers;
        loop {
            n = n.div_ceil(if levels.is_empty() { LEAF } else { FAN });
            // per node and slot: its summary, its place in the queue of stale nodes (8
            // bytes) and its stale bit
            let nodes = t.checked_mul(n)?;
            total = total.checked_add(nodes.checked_mul(width(nr, nl) + 1)?)?;
            total = total.checked_add(nodes.div_ceil(64))?;
            // their room codes: a byte per parent's place, field and resource
            let places = t.checked_mul(n.div_ceil(FAN) * FAN)?;
            total = total.checked_add(places.checked_mul((1 + nl) * nr)?.div_ceil(8))?;
            levels.push(n);
            if n == 1 {
                break;
            }
        }
        if total > GRID_VALUES_MAX {
            return None;
        }
        // idle streams: servers with bit-identical idle prices
        let mut stream = vec![0u8; servers];
        let mut stream_px: Vec<f64> = Vec::new();
        for (s, k) in stream.iter_mut().enumerate() {
            let px = idle.get(s * nr..s * nr + nr)?;
            let found = stream_px
                .chunks_exact(nr)
                .position(|q| q.iter().zip(px).all(|(a, b)| a.to_bits() == b.to_bits()));
            *k = match found {
                Some(k) => k as u8,
                None if stream_px.len() / nr < STREAMS_MAX => {
                    stream_px.extend_from_slice(px);
                    (stream_px.len() / nr - 1) as u8
                }
                None => return None,
            };
        }
        let streams = stream_px.len() / nr;
        let words = servers.div_ceil(64);
        total = total.checked_add(streams.checked_mul(t)?.checked_mul(words)?)?;
        // the room codes: a byte per cell and resource
        total = total.checked_add(t.checked_mul(servers)?.checked_mul(nr)?.div_ceil(8))?;
        if total > GRID_VALUES_MAX {
            return None;
        }
        // positions by capacity vector, then index: a node holds servers of like capacities
        let capv = |s: u32| {
            cap.get(s as usize * nr..s as usize * nr + nr)
                .unwrap_or(&[])
        };
        let mut order: Vec<u32> = (0..servers as u32).collect();
        crate::order::sort_indices_by(&mut order, &|a, b| {
            capv(a)
                .iter()
                .zip(capv(b))
                .map(|(x, y)| x.total_cmp(y))
                .find(|o| o.is_ne())
                .unwrap_or(core::cmp::Ordering::Equal)
                .then(a.cmp(&b))
        });
        let mut pos = vec![0u32; servers];
        for (p, &s) in order.iter().enumerate() {
            pos[s as usize] = p as u32;
        }
        // every server idle: absent from the tree (no room, no price below any bound),
        // present in its stream; its free rooms are -inf: room code 0
        let free = vec![f64::NEG_INFINITY; t * servers * nr];
        let prices = vec![f64::INFINITY; t * servers * nr];
        let codes = vec![0u8; t * servers * nr];
        let mut idle_bits = vec![0u64; streams * t * words];
        for x in 0..t {
            for (s, &k) in stream.iter().enumerate() {
                let b = (k as usize * t + x) * words + s / 64;
                idle_bits[b] |= 1 << (s % 64);
            }
        }
        let sw = width(nr, nl);
        let mut first: Vec<u32> = order.clone();
        let mut lv = Vec::with_capacity(levels.len());
        for &n in &levels {
            first = first
                .chunks(if lv.is_empty() { LEAF } else { FAN })
                .map(|c| c.iter().copied().min().unwrap_or(u32::MAX))
                .collect();
            debug_assert_eq!(first.len(), n);
            lv.push(Level::new(n, t, sw, first.clone(), nr, 1 + nl));
        }
        let mut g = Grid {
            slots: t,
            servers,
            nr,
            free,
            prices,
            codes,
            order,
            pos,
            levels: lv,
            key,
            theta,
            nl,
            stream,
            stream_px,
            words,
            idle_bits,
        };
        for x in 0..slots {
            g.summarise_slot(x);
        }
        Some(g)
    }
}
