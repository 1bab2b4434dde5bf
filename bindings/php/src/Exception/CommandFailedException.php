<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

/** The command ended with Error; getReason() says why. */
final class CommandFailedException extends CommandException
{
}
