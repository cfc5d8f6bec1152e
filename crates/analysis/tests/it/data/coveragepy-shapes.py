"""Shapes with an area."""


def area(kind, size):
    if kind == "square":
        return size * size
    if kind == "circle":
        return 3.14159 * size * size
    raise ValueError(kind)


def perimeter(kind, size):
    if kind == "square":
        return 4 * size
    return 2 * 3.14159 * size


class Box:
    def __init__(self, w, h):
        self.w = w
        self.h = h

    def volume(self, d):
        return self.w * self.h * d
