"""hsd: document parsing VLMs, made faster by lossless hierarchical speculative decoding."""

__version__ = "0.1.0"
