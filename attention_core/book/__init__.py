"""Chapter 3 as the book prints it: inputs, the steps, the five classes, seeding, device."""
