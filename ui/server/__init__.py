"""Running one server for a class: one script run at a time per process (run_gate.py), the live training pool
(jobs.py), public mode's bounds (public.py), the warm-up after start (warmup.py), glibc's allocator (allocator.py)."""
