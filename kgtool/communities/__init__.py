"""Layer 2: files clustered into communities with stable IDs, the map, and the diff."""
