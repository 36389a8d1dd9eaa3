"""Every cache of the app, in one place: cached calls into attention_core keyed on plain values (cache.py), caches
bounded in bytes (byte_cache.py), things built once per key such as chart specs, images and view payloads (built.py),
the keys themselves (keys.py), and the models held once per process (gpt2_model.py, trained_models.py,
weights_source.py). tests/test_layout.py checks that no Streamlit cache is declared anywhere else."""
