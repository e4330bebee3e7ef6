//! OASiS (Bao et al. 2018): online admission with exponential resource prices.
