"""Chat templates for the delta tests, written here from the published format facts (no hub download).

Each differs from the others in how it renders tool calls and tool results, and in what it adds
on its own:

- ``HERMES``: ChatML turns (``<|im_start|>role\\n...<|im_end|>\\n``), a default system prompt when
  the chat has none, the tool schemas in the system turn, each call as ``<tool_call>\\n{"name",
  "arguments"}\\n</tool_call>`` after the content, and consecutive tool results grouped in one
  ``user`` turn as ``<tool_response>`` blocks (Qwen2.5's layout).
- ``LLAMA31``: header-delimited turns ending ``<|eot_id|>``, a system turn always written (a
  knowledge-cutoff line and a date, even with no system message), the tool schemas in the first
  user turn, one call per assistant turn written as bare JSON ``{"name", "parameters"}``, and
  results in the ``ipython`` role (Llama 3.1's layout).
- ``STRIP_EARLIER_THINKING``: ChatML, but an assistant turn that is no longer the last message
  loses its ``<think>...</think>`` part: rendering grows by *rewriting* history.
- ``STRIP_ALL_THINKING``: ChatML that drops reasoning from every assistant turn (DeepSeek-R1's
  habit): append-only, but a turn is not rendered as the model wrote it.
- ``NO_TOOL_ROLE``: ChatML that writes only system, user and assistant turns (a template made
  before tool use): a tool result is silently left out.
"""

HERMES = r"""{%- if messages and messages[0].role == 'system' -%}
    {%- set system_text = messages[0].content -%}
    {%- set rest = messages[1:] -%}
{%- else -%}
    {%- set system_text = 'You are a careful assistant.' -%}
    {%- set rest = messages -%}
{%- endif -%}
{{- '<|im_start|>system\n' + system_text -}}
{%- if tools -%}
    {{- '\n\n# Tools\nFunction signatures, one per line, inside <tools></tools>:\n<tools>' -}}
    {%- for tool in tools -%}{{- '\n' + (tool | tojson) -}}{%- endfor -%}
    {{- '\n</tools>\nCall a function with <tool_call>\n{"name": <name>, "arguments": <object>}\n</tool_call>' -}}
{%- endif -%}
{{- '<|im_end|>\n' -}}
{%- for m in rest -%}
    {%- if m.role == 'assistant' -%}
        {{- '<|im_start|>assistant' -}}
        {%- if m.content -%}{{- '\n' + m.content -}}{%- endif -%}
        {%- for call in m.tool_calls or [] -%}
            {%- set f = call.function if call.function is defined else call -%}
            {{- '\n<tool_call>\n{"name": "' + f.name + '", "arguments": ' -}}
            {{- f.arguments if f.arguments is string else f.arguments | tojson -}}
            {{- '}\n</tool_call>' -}}
        {%- endfor -%}
        {{- '<|im_end|>\n' -}}
    {%- elif m.role == 'tool' -%}
        {%- if loop.first or rest[loop.index0 - 1].role != 'tool' -%}{{- '<|im_start|>user' -}}{%- endif -%}
        {{- '\n<tool_response>\n' + m.content + '\n</tool_response>' -}}
        {%- if loop.last or rest[loop.index0 + 1].role != 'tool' -%}{{- '<|im_end|>\n' -}}{%- endif -%}
    {%- else -%}
        {{- '<|im_start|>' + m.role + '\n' + m.content + '<|im_end|>\n' -}}
    {%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\n' -}}{%- endif -%}"""

LLAMA31 = r"""{{- bos_token | default('<|begin_of_text|>') -}}
{%- if messages and messages[0].role == 'system' -%}
{%- set system_text = messages[0].content | trim -%}{%- set rest = messages[1:] -%}
{%- else -%}
{%- set system_text = '' -%}{%- set rest = messages -%}
{%- endif -%}
<|start_header_id|>system<|end_header_id|>

{% if tools %}Environment: ipython
{% endif %}Cutting Knowledge Date: December 2023
Today Date: {{ date_string | default('26 Jul 2024') }}

{{ system_text }}<|eot_id|>
{%- for m in rest -%}
{%- if m.role == 'user' and loop.first and tools -%}
<|start_header_id|>user<|end_header_id|>

Given the following functions, please respond with a JSON for a function call with its proper arguments that best answers the given prompt.

Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}. Do not use variables.

{% for tool in tools %}{{ tool | tojson(indent=4) }}

{% endfor %}{{ m.content | trim }}<|eot_id|>
{%- elif m.role == 'assistant' and m.tool_calls -%}
{%- if m.tool_calls | length != 1 -%}{{ raise_exception('one tool call per assistant turn') }}{%- endif -%}
{%- set f = m.tool_calls[0].function -%}
<|start_header_id|>assistant<|end_header_id|>

{"name": "{{ f.name }}", "parameters": {{ f.arguments | tojson }}}<|eot_id|>
{%- elif m.role == 'tool' -%}
<|start_header_id|>ipython<|end_header_id|>

{{ m.content if m.content is string else m.content | tojson }}<|eot_id|>
{%- else -%}
<|start_header_id|>{{ m.role }}<|end_header_id|>

{{ m.content | trim }}<|eot_id|>
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}<|start_header_id|>assistant<|end_header_id|>

{% endif -%}"""

_CHATML_THINKING = r"""{%- for m in messages -%}
{%- if m.role == 'assistant' -%}
{%- set text = m.content or '' -%}
{%- if '</think>' in text and STRIP_CONDITION -%}{%- set text = text.split('</think>')[-1].lstrip('\n') -%}{%- endif -%}
<|im_start|>assistant
{{ text }}
{%- for call in m.tool_calls or [] %}
<tool_call>
{"name": "{{ call.function.name }}", "arguments": {{ call.function.arguments | tojson }}}
</tool_call>
{%- endfor %}<|im_end|>
{% elif m.role == 'tool' -%}
<|im_start|>user
<tool_response>
{{ m.content }}
</tool_response><|im_end|>
{% else -%}
<|im_start|>{{ m.role }}
{{ m.content }}<|im_end|>
{% endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}<|im_start|>assistant
{% endif -%}"""

STRIP_EARLIER_THINKING = _CHATML_THINKING.replace("STRIP_CONDITION", "not loop.last")
STRIP_ALL_THINKING = _CHATML_THINKING.replace("STRIP_CONDITION", "true")

NO_TOOL_ROLE = r"""{%- for m in messages if m.role in ('system', 'user', 'assistant') -%}
{{- '<|im_start|>' + m.role + '\n' + (m.content or '') + '<|im_end|>\n' -}}
{%- endfor -%}
{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\n' -}}{%- endif -%}"""
