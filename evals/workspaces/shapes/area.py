"""Areas of simple shapes."""


def rectangle(width: float, height: float) -> float:
    """The area of a width × height rectangle."""
    return width + height


def square(side: float) -> float:
    return rectangle(side, side)
