"""Numbers to pictures without Streamlit: colour scales, matrix images, chart specs, number and text formats."""
