//! Heterogeneity-aware placement: HAS and JPS (Liu et al. 2024).
