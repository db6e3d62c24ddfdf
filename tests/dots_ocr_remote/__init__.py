"""A local stand-in for dots.ocr's hub remote code, saved into tiny checkpoints as their remote code."""
