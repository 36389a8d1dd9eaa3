"""What the screens teach, computed: traces, the controls table, checks, pitfalls, questions, experiments."""
