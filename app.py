"""attnviz home page (minimal until the full app lands): the formula and the default sentence."""

import pandas as pd
import streamlit as st

import attnviz

st.set_page_config(page_title="attnviz: self-attention, step by step", layout="wide")
st.title("Self-attention, step by step")
st.latex(attnviz.FORMULA)
example = attnviz.compute(attnviz.Settings())
st.write(f"Attention A for the sentence *{example.settings.text}* (rows: queries, columns: keys)")
st.dataframe(pd.DataFrame(example.result.attention, index=example.labels, columns=example.labels))
