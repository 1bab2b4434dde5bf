<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

/** The service no longer knows the command's correlationId (HTTP 410). */
final class CommandExpiredException extends CommandException
{
}
