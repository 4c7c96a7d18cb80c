from hostile.runner import Case


def cases() -> list[Case]:
    return []
