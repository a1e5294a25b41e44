"""`calculate`: two-number arithmetic, answered locally because a small model gets sums wrong."""

from __future__ import annotations

import re
from typing import Any

from voxd.commands.api import Command, CommandRequest, CommandResponse, Parameter
from voxd.commands.builtin import spoken_number
from voxd.commands.phrasebook import phrasebook
from voxd.language.scanners import scan_numbers
from voxd.language.templates import normalize_utterance

OPERATIONS = ("add", "subtract", "multiply", "divide")
SPOKEN_OPERATOR = {"add": "plus", "subtract": "minus", "multiply": "times", "divide": "divided by"}
OPERATOR = (
    "{operation:choice(add=plus, subtract=minus|take away, "
    "multiply=times|multiplied by|x, divide=divided by|over|split)}"
)

# Arithmetic asked for in words or signs, when the scanner found neither an operation nor two numbers:
# "20% of a thousand", "the square root of 31", "a math problem". A count of other things ("how much
# money do i have total", "how many a's are in happiness") is no sum.
ARITHMETIC = re.compile(r"[-+*/x×÷%=^]\s*\d|\d\s*[-+*/x×÷%^]|\b(?:plus|minus|times|divided|divide|multipl\w*|add|"
                        r"subtract\w*|sum|percent|per cent|square\w*|root|cubed?|squared|power|math\w*|equation|"
                        r"calculat\w*|arithmetic|algebra|factorial|\w*log\w*|divisible|split|halve|double|triple|tip|"
                        r"off|of \d|twos|threes|fours|fives|sixes|sevens|eights|nines|tens|twelves|an hour|each)\b")
# With no number said, only words that name mathematics itself ask for it ("help me with a math problem",
# "can you do algebra", "the square root of pi"): "take the day off", "split the bill at olive garden" or
# "what's the tip etiquette in france" is no sum.
MATHEMATICS = re.compile(r"\b(?:math\w*|equations?|algebra|arithmetic|calculat\w*|sums?|square roots?|cube roots?|"
                         r"factorials?|logarithms?|percentages?|multiplication|division|subtraction|addition)\b")


class Calculate(Command):
    name = "calculate"
    topic = "sums"
    description = (
        "Do arithmetic on two numbers: add, subtract, multiply or divide. "
        "Use for 'what's 12 times 7' or 'what is 100 divided by 4'; not for unit conversions."
    )
    examples = phrasebook("calculate")
    parameters = (
        Parameter("num1", "number", "first number", required=True),
        Parameter("num2", "number", "second number", required=True),
        Parameter("operation", "enum", "operation: add, subtract, multiply or divide",
                  required=True, choices=OPERATIONS),
    )
    templates = (
        f"[what is|how much is|calculate|what does] {{num1:number}} {OPERATOR} {{num2:number}} [equal|make]",
        "[please] [can you] {operation:choice(add, multiply, divide)} {num1:number} (and|by|to) {num2:number} "
        "[for me|please]",
        "[please] [can you] {operation:choice(subtract=subtract|take|knock)} {num2:number} [away] (from|off) {num1:number} "
        "[for me|please]",
        # A sum of money shared: "60 quid split three ways", "a hundred dollars divided between four people".
        "[what is|how much is] {num1:number} (quid|pounds|dollars|euros|bucks|rupees) {operation:choice(divide=split|shared|divided)} "
        "[between|among|by] {num2:number} [ways|people|of us]",
    )

    def stands(self, arguments: dict[str, Any], text: str) -> bool:
        """A semantic claim needs what a sum is made of: an operation or two numbers the scanner read, or
        arithmetic's words (`ARITHMETIC`); and with no number said, a word of mathematics itself
        (`MATHEMATICS`)."""
        if not scan_numbers(text) and not re.search(r"\d", text) and MATHEMATICS.search(text.lower()) is None:
            return False
        numbers = arguments.get("num1") is not None and arguments.get("num2") is not None
        return numbers or bool(arguments.get("operation")) or ARITHMETIC.search(text.lower()) is not None

    def refine(self, arguments: dict[str, Any], text: str) -> dict[str, Any] | None:
        """"take 15 away from 80" is 80 - 15, and "take 38 off 150" (or "knock ... off") 150 - 38: a
        number said before "from" or "off" is taken from the one after it, however the numbers were
        found (a template's slots, or the semantic stage's scanner, which hands them out in the
        order they were said)."""
        if arguments.get("operation") == "subtract":
            said = normalize_utterance(text)
            for word in (" from ", " off "):
                before, taken_from, after = said.partition(word)
                taken, whole = scan_numbers(before), scan_numbers(after)
                if taken_from and len(taken) == 1 and len(whole) == 1:
                    return {**arguments, "num1": whole[0], "num2": taken[0]}
        return arguments

    async def execute(self, request: CommandRequest, **arguments) -> CommandResponse:
        num1, num2, operation = arguments["num1"], arguments["num2"], arguments["operation"]
        data = {"num1": num1, "num2": num2, "operation": operation}
        if operation == "divide" and num2 == 0:
            return CommandResponse("I can't divide by zero.", data=data, success=False)
        try:
            result = compute(num1, num2, operation)
            sentence = (
                f"{spoken_number(num1)} {SPOKEN_OPERATOR[operation]} {spoken_number(num2)} "
                f"is {spoken_number(result)}."
            )
        except (OverflowError, ValueError):  # past what a float holds, or infinite
            return CommandResponse("That number is too big for me to say.", data=data, success=False)
        return CommandResponse(sentence, data={**data, "result": result})


def compute(num1: float, num2: float, operation: str) -> float:
    if operation == "add":
        return num1 + num2
    if operation == "subtract":
        return num1 - num2
    if operation == "multiply":
        return num1 * num2
    return num1 / num2


COMMANDS = [Calculate]
