//! Preemptive edge-cloud chunk scheduling (Wang et al. 2022).
