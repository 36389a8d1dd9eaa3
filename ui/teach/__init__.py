"""Class mode: predict first, the chapter's exercises, the readers' questions."""
