"""Scripts run from the repository's root as modules: ``python -m scripts.screenshots``."""
