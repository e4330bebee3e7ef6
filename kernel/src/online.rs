//! Online weighted-completion-time scheduling (Zhou et al. 2022).
