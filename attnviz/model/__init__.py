"""The real pretrained model: loading (``pretrained``), its forward pass (``bert``, ``gelu``),
what its heads do (``head_stats``) and memory hygiene after a pass (``trim``).

Imported on first use (``attnviz.load_pretrained``): ``safetensors`` and ``tokenizers`` load
only with a model.
"""
