"""Reports: a page's result from its tokens (result, with its blocks, provenance and tables), JSON
(json), summaries (summary), Markdown (markdown), atomic files and resume (store)."""
