"""Where kgtool meets the tools around it: git hooks (the plain hooks and the run every hook
makes), GitHub pull requests (annotations, the job summary, one comment); built on the
commands' checks and layers, never below them."""
