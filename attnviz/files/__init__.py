"""Numbers in and out of the app: matrices read from typed text or an uploaded file
(``own_numbers``), and every step of an Example written as CSV, JSON or NPZ downloads
(``export``). numpy (and pandas for the CSV), no Streamlit."""
