-- Queens@TUD's whole UART board design (queens_uart from preusser/q27: UART, input FIFO,
-- unframe, solver chain, output FIFO, enframe) driven through its rx and tx pins as a host at
-- the far end of a serial line would: the bytes of a stimulus file go out at the cycles it
-- names, and every byte the board sends is written with the cycle it arrived in. This
-- testbench is ours; the design under test is not part of this repository
-- (record-board.sh fetches it).
--
-- Stimulus, one line per group of bytes sent back to back:  CYCLE HEXBYTES
--   the group starts at CYCLE, or once the line is free if that is later.
-- Recording, one line per received byte:  CYCLE HEXBYTE [HEXMASK]
--   CYCLE: the cycle in which the byte's stop bit was sampled (mid-bit); HEXMASK, when
--   present, marks the bits the design left undefined ('-': the padding of the last payload
--   byte), read as 0. The simulator computes the CRC after such a byte from an undefined
--   index, so that CRC byte is not what a built board sends.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use std.textio.all;

entity board_tb is
  generic (
    N            : positive := 10;
    SOLVERS      : positive := 4;
    COUNT_CYCLES : boolean  := true;
    CLK_FREQ     : positive := 14745600;
    BAUDRATE     : positive := 115200;
    STIMULUS     : string   := "stimulus.txt";
    RECORDING    : string   := "recording.txt"
  );
end entity;

architecture sim of board_tb is
  -- The host's serial line: this many board cycles a bit (exact at the default clock).
  constant BIT_CYCLES : positive := CLK_FREQ / BAUDRATE;
  -- Simulated time is only a count of cycles here: 10 ns a cycle whatever CLK_FREQ says.
  constant PERIOD     : time     := 10 ns;

  signal clk   : std_logic := '0';
  signal rst   : std_logic := '1';
  signal rx    : std_logic := '1';
  signal tx    : std_logic;
  signal cycle : natural   := 0;
  signal done  : boolean   := false;

  function hex_digit(c : character) return natural is
  begin
    case c is
      when '0' to '9' => return character'pos(c) - character'pos('0');
      when 'a' to 'f' => return character'pos(c) - character'pos('a') + 10;
      when 'A' to 'F' => return character'pos(c) - character'pos('A') + 10;
      when others     => report "not a hex digit: " & c severity failure; return 0;
    end case;
  end function;

  constant DIGITS : string(1 to 16) := "0123456789abcdef";
begin
  dut : entity work.queens_uart
    generic map (
      N => N, L => 2, SOLVERS => SOLVERS, COUNT_CYCLES => COUNT_CYCLES,
      CLK_FREQ => CLK_FREQ, BAUDRATE => BAUDRATE, SENTINEL => x"FA"
    )
    port map (clk => clk, rst => rst, rx => rx, tx => tx, avail => open);

  clocking : process
  begin
    -- The first edge comes after every signal has its first value (PoC's bit clock divider
    -- takes an undefined carry into its counter for good otherwise).
    while not done loop
      wait for PERIOD / 2;
      clk <= '1';
      cycle <= cycle + 1;
      wait for PERIOD / 2;
      clk <= '0';
    end loop;
    wait;
  end process;

  send : process
    file f       : text open read_mode is STIMULUS;
    variable l   : line;
    variable at  : natural;
    variable hex : string(1 to 4096);
    variable len : natural;
    variable b   : std_logic_vector(7 downto 0);
    variable ok  : boolean;
    variable c   : character;

    procedure bits(v : std_logic) is
    begin
      rx <= v;
      wait for BIT_CYCLES * PERIOD;
    end procedure;
  begin
    for i in 1 to 16 loop
      wait until rising_edge(clk);
    end loop;
    rst <= '0';
    while not endfile(f) loop
      readline(f, l);
      next when l'length = 0;
      read(l, at);
      -- Skip the blank between the cycle and the bytes, then read the hex digits.
      len := 0;
      loop
        read(l, c, ok);
        exit when not ok;
        if c /= ' ' then
          len := len + 1;
          hex(len) := c;
        end if;
      end loop;
      if cycle < at then
        wait for (at - cycle) * PERIOD;
      end if;
      for i in 0 to len/2 - 1 loop
        b := std_logic_vector(to_unsigned(16*hex_digit(hex(2*i+1)) + hex_digit(hex(2*i+2)), 8));
        bits('0');
        for k in 0 to 7 loop
          bits(b(k));
        end loop;
        bits('1');
      end loop;
    end loop;
    wait;
  end process;

  receive : process
    file f     : text open write_mode is RECORDING;
    variable l : line;
    variable v : natural;
    variable m : natural;
  begin
    wait until rst = '0';
    loop
      wait until tx = '0';
      -- To the middle of the start bit, then one bit at a time.
      wait for (BIT_CYCLES/2) * PERIOD;
      v := 0;
      m := 0;
      for k in 0 to 7 loop
        wait for BIT_CYCLES * PERIOD;
        case tx is
          when '1' | 'H' => v := v + 2**k;
          when '0' | 'L' => null;
          when others    => m := m + 2**k;
        end case;
      end loop;
      wait for BIT_CYCLES * PERIOD;
      assert tx = '1' report "no stop bit" severity error;
      write(l, cycle);
      write(l, string'(" "));
      write(l, DIGITS(v/16 + 1));
      write(l, DIGITS(v mod 16 + 1));
      if m /= 0 then
        write(l, string'(" "));
        write(l, DIGITS(m/16 + 1));
        write(l, DIGITS(m mod 16 + 1));
      end if;
      writeline(f, l);
    end loop;
  end process;

  -- The stimulus file's last line is "CYCLE" alone: the run ends then.
  stop : process
    file f      : text open read_mode is STIMULUS;
    variable l  : line;
    variable at : natural := 0;
  begin
    while not endfile(f) loop
      readline(f, l);
      if l'length > 0 then
        read(l, at);
      end if;
    end loop;
    while cycle < at loop
      wait for 1 ms;
    end loop;
    done <= true;
    wait;
  end process;
end architecture;
