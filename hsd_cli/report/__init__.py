"""Reports: JSON (json), summaries (summary), Markdown (markdown), atomic files and resume (store)."""
