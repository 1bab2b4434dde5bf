<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

/** The command was still running when the wait ran out; it may yet finish (look the order up before sending it again). */
final class CommandTimeoutException extends CommandException
{
}
