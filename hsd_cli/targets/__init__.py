"""Target adapters: one model family per module, all behind `VisionTarget`."""
