"""The Streamlit glue: the only part of attnviz that imports streamlit.

Pages are short scripts: ``example = page_setup(title)``, then charts drawn with ``show_matrix``
and the views in ``attnviz.ui.views``.
"""

from attnviz.ui.matrix import dims, show_matrix
from attnviz.ui.sidebar import link_query, page_setup, shared_settings

__all__ = ["dims", "link_query", "page_setup", "shared_settings", "show_matrix"]
