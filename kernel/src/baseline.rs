//! Baselines the papers compare against: FIFO, DRF, Tiresias-LAS, Optimus.
