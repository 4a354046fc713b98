"""Numbers in and out of the app: matrices read from typed text or an uploaded file
(``own_numbers``), every step of an Example written as CSV, JSON or NPZ downloads
(``export``), and the models' files fetched from the Hugging Face Hub (``hub``). numpy (and
pandas for the CSV), no Streamlit."""
