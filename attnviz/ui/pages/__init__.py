"""One module per page, named after its script in pages/: each holds that page's views (the
functions that draw) and controls (``*_ui`` or pickers, which draw widgets and return what the
user chose). Page scripts stay short: prose, then calls into their module."""
