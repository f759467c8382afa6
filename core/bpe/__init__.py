"""BPE as a merge graph (V, M_i, M_o of [knockout §3.1]): merges, the model, BTE segmentation, unknown
characters, the neighbourhood of a type, the project-JSON serialisation, the trainer and its checkpoints."""
