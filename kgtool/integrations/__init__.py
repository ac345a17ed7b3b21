"""Where kgtool meets the tools around it: GitHub pull requests (annotations, the job
summary, one comment), built on the commands' checks and layers, never below them."""
