"""Streamlit glue shared by the pages (state, cached loading)."""
