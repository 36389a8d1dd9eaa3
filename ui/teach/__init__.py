"""Class mode: predict first and the chapter's exercises (quiz.py), and the class as one room: a join code, its QR
code and the teacher's view (room.py), the room's counts and its reveal (room_quiz.py)."""
