"""Core engine for structured subword tokenisers (BPE/BTE, knockout, ReBPE, ...).

UI-free: nothing here imports streamlit, plotly or pyvis.
"""

__version__ = "0.1.0"
