"""Streamlit entry point: ``streamlit run app.py``."""
import streamlit as st

st.set_page_config(page_title="Structured tokeniser explorer", page_icon="🧩", layout="wide")
st.navigation([
    st.Page("pages/segment.py", title="Segment a word", url_path="segment", default=True),
]).run()
