"""Pure builders from engine results to HTML / plotly figures (no Streamlit calls)."""
