"""Who is asking: the key of per-visitor limits. A minimal stand-in on this branch (i36fair):
helper i33room writes the real one (browser id + client address); take theirs at the merge."""

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx


def visitor_key() -> str:
    """The client's address (``st.context.ip_address``) and this session's id."""
    ctx = get_script_run_ctx(suppress_warning=True)
    session = ctx.session_id if ctx is not None else "no session"
    return f"{st.context.ip_address or 'unknown address'}|{session}"
