"""The real pretrained model: loading (``pretrained``), its forward pass (``bert``, ``gelu``) and
what its heads do (``head_stats``). The page's views are in ``attnviz.ui.pages.real_model``.

Imported on first use (``attnviz.load_pretrained``): ``safetensors`` and ``tokenizers`` load
only with a model.
"""
