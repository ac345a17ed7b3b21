"""Layer 2: files clustered into communities with stable IDs, and the diff (the map drawn
over them is layer 3's, ``kgtool.ontology.map``)."""
