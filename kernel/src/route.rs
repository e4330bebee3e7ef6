//! CSRP and Aggregated CSRP (Song et al. 2023).
