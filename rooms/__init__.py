"""Class rooms (issue 31): a join code, every student's prediction counted for the teacher, the teacher's
view in every hand. Plain Python, no Streamlit or torch: the screens build on rooms.store's interface."""
