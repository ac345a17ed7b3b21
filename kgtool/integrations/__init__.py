"""What connects kgtool to the places it runs: git hooks and GitHub."""
