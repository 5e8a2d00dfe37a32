<?php
// A slow empty.php: reads the upload, then waits 10 s before answering, so
// a sample with a short timeout never sees a response.
$in = fopen('php://input', 'rb');
while (!feof($in) && fread($in, 1048576) !== false) {
}
fclose($in);
sleep(10);
http_response_code(200);
